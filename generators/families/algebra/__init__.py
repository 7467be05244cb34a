"""algebra families (see generators/README.md)."""
