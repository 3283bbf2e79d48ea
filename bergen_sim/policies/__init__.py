"""Policies: the plug-ins that choose moves (see registry.py and base.py)."""
