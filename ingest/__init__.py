"""Ingestion: read ordinance and code documents (.txt, .pdf), clean extraction damage, split into sections."""
