"""Wizard online: the rules engine, the bots and the server of the card game Wizard."""

__version__ = "0.1.0"
