"""The game as Python values: ``Rules``, tiles, moves and events, and the match state they are stepped in."""
