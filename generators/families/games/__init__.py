"""games families (see generators/README.md)."""
