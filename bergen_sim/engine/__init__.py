"""The compiled engine: data layout, rules as compiled functions, the match loop."""
