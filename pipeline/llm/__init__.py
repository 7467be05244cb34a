"""Optional LLM-backed generation: a model designs worlds as data; each output is checked before it is kept.

Files and how to extend: README.md beside this file.
"""
