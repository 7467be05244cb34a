"""Serving a bundle: many isolated sessions in one process, over HTTP (FastAPI) and MCP.

``sessions.py`` owns the sessions (capacity, idle reaping), ``openapi.py`` the served
document and request-body schemas, ``http.py`` the app factory :func:`create_app`,
``mcp.py`` the MCP tool list and session binding. ``synthenv serve`` runs the app.
"""
