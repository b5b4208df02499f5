"""The faces of the tool: the command line, the notebook API, `briscola check`."""
