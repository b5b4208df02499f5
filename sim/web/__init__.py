"""People at the table: a deal played from a web page (``table.py``: what the page is
shown, never a card its seat may not see)."""
