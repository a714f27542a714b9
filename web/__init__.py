"""The browser client (plain ES modules, no build step), installed as the package data of
``machiavelox_web`` (``pyproject.toml`` maps that name to this folder): the server finds it
with :func:`importlib.resources.files`, so a regular install, an editable one and the image
all serve it. It holds no Python but this file."""
