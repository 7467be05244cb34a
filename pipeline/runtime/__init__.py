"""What training sees: sessions over a bundle's state, the executor and the Environment."""
