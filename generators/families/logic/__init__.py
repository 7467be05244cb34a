"""logic families (see generators/README.md)."""
