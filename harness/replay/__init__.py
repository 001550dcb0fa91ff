"""Playing a case to an agent: the scripted model, tools, turns, the wire endpoint, processes."""
