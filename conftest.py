"""Project-wide pytest configuration (the patgate plugin itself loads through its entry point)."""
