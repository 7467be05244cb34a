"""The ``synthenv`` command line: ``main.py`` builds the app, each other module adds a group."""
