export { requireTool } from '../../src/bench/cluster.js';
