"""TravelPlanner (Xie et al., ICML 2024) for scn: the sandbox generator (`sandbox`), its indexes
(`database`), the structured plan (`plan`), the 13 constraint validators (`validators`), the
reference-plan solver (`solver`), the queries (`queries`), the runtime world (`world`), the
greedy baseline (`greedy`) and the hooks that register them (`plugin`)."""
