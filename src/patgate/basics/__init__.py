"""Plain values every layer names: behaviours, refusal reasons, levels, what a step observed,
the PAT grammar, where the shipped files are. Nothing here imports the rest of patgate."""
