"""Presentation: results read back and verified as pandas, tables, plots, the HTML report."""
