"""algorithmic families (see generators/README.md)."""
