# src/tools
