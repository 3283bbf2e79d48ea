"""Bergen for other frameworks: an OpenSpiel game and a Gymnasium environment."""
