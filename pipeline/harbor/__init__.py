"""Harbor's formats: bundles as Harbor tasks (:mod:`.export`), the ``tools`` command and verifier that
run inside a task's containers (:mod:`.container`, :mod:`.verify`), trajectory logs as ATIF (:mod:`.atif`).

Nothing here imports the ``harbor`` package: it is a test tool (``.venv-harbor``), never a dependency.
"""
