"""Tool-selection evals shipped with the product: cases, the offline lint and the runner."""
