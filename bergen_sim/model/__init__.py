"""The game as Python values: ``Rules``, tiles, moves and events, and the reference engine built on them."""
