"""``report.html``: the page (``page.py``) assembled from a data section and a task section."""
