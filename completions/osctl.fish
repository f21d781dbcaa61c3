complete --keep-order --exclusive --command osctl --arguments "(OSCTL_COMPLETE=fish osctl -- (commandline --current-process --tokenize --cut-at-cursor) (commandline --current-token))"
