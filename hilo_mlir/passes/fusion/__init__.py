"""Fusion passes: NeuronOpFusion and its sub-passes, raise-logistic, fusion-to-composite."""
