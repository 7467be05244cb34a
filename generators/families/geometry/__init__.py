"""geometry families (see generators/README.md)."""
