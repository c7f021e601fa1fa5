import { replicasScenario } from "./fixtures/replicas-scenario.js";

replicasScenario("pgbouncer-upstream");
