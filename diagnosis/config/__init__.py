"""Config documents: parsing with a source map (`parse`) and fixes as minimal text edits (`edit`)."""
