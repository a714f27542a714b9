"""Machiavelox's real-time server and command line."""
