"""Jobs: the plain functions the Prefect flows wrap — generate one environment, a batch, the curriculum loop.

Files and how to extend: README.md beside this file.
"""
