// placeholder; CellKit is being written
