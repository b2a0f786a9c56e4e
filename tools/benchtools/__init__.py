"""Tools over cuda_bench result JSON: one loader (results.py), small CLIs on top."""
