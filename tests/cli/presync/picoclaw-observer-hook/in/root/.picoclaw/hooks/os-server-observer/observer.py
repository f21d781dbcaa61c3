#!/usr/bin/env python3
"""os-server-observer (a stand-in for the hook the OS image ships)."""
