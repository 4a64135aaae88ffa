"""The pass manager: the registry, pipelines and their parser, the executor, instrumentation, reproducers, plugins."""
