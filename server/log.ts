// The log lives in lib/ so that the host-side code (agent, member CLI) can use it
// without importing the server; server code keeps importing it from here.
export { log } from "@/lib/log";
