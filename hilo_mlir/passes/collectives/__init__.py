"""Passes on collectives: control-dep tuples, collective-broadcast, custom-call all-reduce, coalescing."""
