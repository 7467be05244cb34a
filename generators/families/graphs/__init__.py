"""graphs families (see generators/README.md)."""
