"""induction families (see generators/README.md)."""
