"""Built-in search providers, one module per service (registered in ``unifind.registry``)."""
