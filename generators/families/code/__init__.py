"""code families (see generators/README.md)."""
