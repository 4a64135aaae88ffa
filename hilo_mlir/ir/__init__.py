"""The IR layer: the binding (:mod:`.binding`, the one place that imports the MLIR Python bindings),
the dialect table (:mod:`.dialects`), small reads of the IR (:mod:`.utils`), the side-effect model
(:mod:`.effects`) and type legality (:mod:`.type_legality`).

Importing this package imports nothing else: ``hilo-opt --help`` lists passes without loading the bindings.
"""


def __getattr__(name: str) -> object:
    """``from hilo_mlir.ir import ir, make_context`` (the path pass plugins were written against) keeps
    working: names of :mod:`.binding` are resolved on first use, so importing the package stays free."""
    import importlib

    binding = importlib.import_module(f"{__name__}.binding")
    try:
        return getattr(binding, name)
    except AttributeError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
