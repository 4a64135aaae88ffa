"""``CompileConfig``: one boolean per pipeline gate, defaulting as the real compiler does.

Every gate maps to ``--enable-<gate>`` / ``--disable-<gate>`` on ``hilo2penguin``
(``<gate>`` is the field name in kebab-case); ``--preset all`` turns every gate
on. Where the binary keeps each gate: ``CompileConfig.PROVENANCE`` and
``docs/provenance.md``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass, fields
from typing import ClassVar


def input_types_text(input_types: str | Sequence[str] | None) -> str | None:
    """``input_types`` (a comma-separated string or a list of type strings) as the ``input-types``
    option of ``refine-shapes`` spells it (comma-separated); None when no type is given."""
    if not input_types:
        return None
    return input_types if isinstance(input_types, str) else ",".join(str(t) for t in input_types)


#: Fields of CompileConfig that are not gates of a pipeline step.
_NOT_GATES = frozenset({"stablehlo", "verify_each", "model_type", "pass_edits", "max_pass_index", "fusion_fuel", "input_types"})


@dataclass
class CompileConfig:
    """Gates of the two pipeline spines: one boolean per gated step (``--enable-<gate>``).

    Defaults are the real compiler's: ``lower_complex``, ``sixty_four_hack``
    and ``call_inliner`` on, every other gate off; :meth:`preset` ``"all"``
    turns every gate on. The step each gate guards is listed by
    ``hilo2penguin --list-spine``; where the binary keeps each gate is in
    ``docs/provenance.md``.

    Attributes:
        canonicalize: step 1, the upstream canonicalizer.
        control_dep_tuple_simplifier: step 2.
        verify_supported_ops: step 4.
        canonicalize_conv: step 5.
        lower_complex: step 6 (default on).
        lower_complex_extra: step 7.
        remove_optimization_barriers: step 8.
        cross_pass_tensors: steps 9 and 10 (one gate).
        coalesce_collectives: step 11.
        fs_pattern: step 12.
        op_fusion: step 15.
        fold_iota: step 16.
        schedule_postorder: step 17.
        analyze_schedule: step 18.
        schedule_fusion: step 21.
        hoist_compute: step 22.
        memcast_motion: step 23.
        sixty_four_hack: step 25 (default on).
        verify_aliasing: step 30.
        fuse_dot_logistic: the ``fuse-dot-logistic`` option of step 15
            (DotLogistic and MulRedSqrt fusion).
        general_elementwise_fusion: the ``general-elementwise-fusion`` option
            of step 15 (Expm1, Log1p and Elementwise fusion).
        raise_logistic: run ``raise-logistic`` before the spine (ours).
        call_inliner: run ``call-inliner`` before the spine (ours, default on):
            the real compiler inlines calls before this pipeline runs.
        stablehlo: not a gate: the spine selector (``--spine stablehlo``).
        verify_each: not a gate: run the verifier after every pass and name
            the pass that broke the IR (``--verify-each``). Default off, as the
            real compiler runs its pass manager: the module is verified once,
            before the printer.
        model_type: not a gate: the ``model-type`` attribute of the program's
            ``Function`` prologue (``generic``, ``transformer``, ``unet-inference``;
            ``hilo2penguin --model-type``).
        pass_edits: not a gate: edits of the spine (passes inserted, steps
            replaced or disabled; :class:`hilo_mlir.driver.spine_edits.PassEdit`), in
            order. Build them with :meth:`insert_pass_after` and friends
            (``hilo2penguin --insert-pass-after`` ...).
        max_pass_index: not a gate: ``--max-pass-index N`` (LLVM's ``-opt-bisect-limit``):
            steps with an index above N are skipped (index 0 is the first step as
            ``--dump-pass-pipeline`` lists them: the import step, or ``refine-shapes``
            when ``input_types`` is given; the printer always runs). None: every step runs.
        fusion_fuel: not a gate: ``--fusion-fuel N`` (XLA's ``--xla_fuel``): the
            clusters the fusing passes may form in total; 0 gives a fusion-free
            program. None: unlimited (the output is byte-identical to no flag).
        input_types: not a gate: ``--input-types`` (the API's ``input_types=``): the
            static types of ``main``'s arguments, comma-separated
            (``"tensor<4x32xf32>,tensor<32x16xf32>"``); the pipeline then starts with
            ``refine-shapes{input-types=...}``. None: no refinement. Set it with
            :meth:`with_input_types` (a list is accepted there).
    """

    canonicalize: bool = False
    control_dep_tuple_simplifier: bool = False
    verify_supported_ops: bool = False
    canonicalize_conv: bool = False
    lower_complex: bool = True
    lower_complex_extra: bool = False
    remove_optimization_barriers: bool = False
    cross_pass_tensors: bool = False
    coalesce_collectives: bool = False
    fs_pattern: bool = False
    op_fusion: bool = False
    fold_iota: bool = False
    schedule_postorder: bool = False
    analyze_schedule: bool = False
    schedule_fusion: bool = False
    hoist_compute: bool = False
    memcast_motion: bool = False
    sixty_four_hack: bool = True
    verify_aliasing: bool = False
    fuse_dot_logistic: bool = False
    general_elementwise_fusion: bool = False
    raise_logistic: bool = False
    call_inliner: bool = True
    stablehlo: bool = False
    verify_each: bool = False
    model_type: str = "generic"
    pass_edits: tuple = ()
    max_pass_index: int | None = None
    fusion_fuel: int | None = None
    input_types: str | None = None

    #: Where the binary keeps each gate (``docs/provenance.md``; never shown to users).
    PROVENANCE: ClassVar[dict] = {
        "canonicalize": "seed 004 step 1, cfg[0x119]",
        "control_dep_tuple_simplifier": "seed 004 step 2, cfg[0x200]",
        "verify_supported_ops": "seed 004 step 4, cfg[0x136]",
        "canonicalize_conv": "seed 004 step 5, cfg[0x12F]",
        "lower_complex": "seed 004 step 6, cfg[0x11A]",
        "lower_complex_extra": "seed 004 step 7, cfg[0x11B]",
        "remove_optimization_barriers": "seed 004 step 8, cfg[0x11C]",
        "cross_pass_tensors": "seed 004 steps 9 and 10, cfg[0x116]",
        "coalesce_collectives": "seed 004 step 11, cfg[0x117]",
        "fs_pattern": "seed 004 step 12, cfg[0x11F]",
        "op_fusion": "seed 004 step 15, cfg[0x120]",
        "fold_iota": "seed 004 step 16, cfg[0x118]",
        "schedule_postorder": "seed 004 step 17, cfg[0x130]",
        "analyze_schedule": "seed 004 step 18, cfg[0x134]",
        "schedule_fusion": "seed 004 step 21, cfg[0x135]",
        "hoist_compute": "seed 004 step 22, cfg[0xE9]",
        "memcast_motion": "seed 004 step 23, cfg[0xE5]",
        "sixty_four_hack": "seed 004 step 25, global qword_9C71338 == 0 (the default)",
        "verify_aliasing": "seed 004 step 30, cfg[0x13C]",
        "fuse_dot_logistic": "seed 000, NeuronOpFusion cl::opt byte @0x9c717b8",
        "general_elementwise_fusion": "seed 000, NeuronOpFusion cl::opt byte @0x9c716f8",
        "raise_logistic": "ours (JAX lowers sigmoid to 1/(1+exp(-x)); DotLogistic needs logistic)",
        "call_inliner": "ours; seed 004 'The B-strand -> C-strand Handoff' (XLA's CallInliner runs before)",
    }

    @classmethod
    def gate_names(cls) -> list[str]:
        """Every gate field (not the spine selector ``stablehlo``, nor ``verify_each``, ``model_type``, ``pass_edits``)."""
        return [f.name for f in fields(cls) if f.name not in _NOT_GATES]

    @classmethod
    def preset(cls, name: str) -> CompileConfig:
        """``"default"`` (the binary's defaults) or ``"all"`` (every gate on)."""
        if name == "default":
            return cls()
        if name == "all":
            return cls(**{g: True for g in cls.gate_names()})  # type: ignore[arg-type]  # every gate is a bool
        raise ValueError(f"unknown preset '{name}' (known: default, all)")

    def replace(self, **kw) -> CompileConfig:
        return dataclasses.replace(self, **kw)

    def with_input_types(self, input_types: str | Sequence[str] | None) -> CompileConfig:
        """A copy that specializes ``main`` to ``input_types`` (a comma-separated string or a list of
        type strings, one per argument); ``None`` or empty: this config unchanged."""
        text = input_types_text(input_types)
        return self if text is None else self.replace(input_types=text)

    def _edit(self, kind: str, step: str, pipeline: str = "") -> CompileConfig:
        from hilo_mlir.driver.spine_edits import PassEdit

        return self.replace(pass_edits=tuple(self.pass_edits) + (PassEdit(kind, step, pipeline),))

    def insert_pass_after(self, step: str, pipeline: str) -> CompileConfig:
        """A copy with ``pipeline`` (``"my-pass{opt=1}"``) run right after spine step ``step``
        (a pass argument such as ``"neuron-op-fusion"`` or a step number such as ``"15"``)."""
        return self._edit("insert-after", step, pipeline)

    def insert_pass_before(self, step: str, pipeline: str) -> CompileConfig:
        """A copy with ``pipeline`` run right before spine step ``step``."""
        return self._edit("insert-before", step, pipeline)

    def replace_pass(self, step: str, pipeline: str) -> CompileConfig:
        """A copy with spine step ``step`` replaced by ``pipeline``."""
        return self._edit("replace", step, pipeline)

    def disable_pass(self, step: str) -> CompileConfig:
        """A copy without spine step ``step``."""
        return self._edit("disable", step)
