OS_SERVER_TURN_URL = "http://127.0.0.1:5080/api/agent/channel-turn"
