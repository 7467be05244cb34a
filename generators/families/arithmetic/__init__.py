"""arithmetic families (see generators/README.md)."""
