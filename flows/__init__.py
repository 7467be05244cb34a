"""Prefect flows: thin wiring around the plain functions of ``pipeline`` and ``generators``."""
