"""Built-in fetchers, one module per service (registered in ``unifind.registry``)."""
