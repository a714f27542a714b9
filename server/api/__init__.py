"""HTTP and websocket routes, one module per resource."""
