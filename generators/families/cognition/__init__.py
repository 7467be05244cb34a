"""cognition families (see generators/README.md)."""
