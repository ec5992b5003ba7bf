/**
 * The agent framework the data plane's threads run on, independent of what the agents do: an {@link
 * net.fips.dataplane.agent.Agent} is a loop body with a {@code doWork()} that returns a work count; an {@link
 * net.fips.dataplane.agent.AgentRunner} runs one on a platform thread of its own, idling between empty cycles
 * through an {@link net.fips.dataplane.agent.IdleStrategy} ({@link net.fips.dataplane.agent.BackoffIdleStrategy}:
 * spin, yield, short parks) and then parking on the agent's {@link net.fips.dataplane.agent.WakeSignal} until a
 * producer signals it. The engine ({@code net.fips.dataplane.engine}) builds the agents and decides how they are
 * packed onto threads.
 */
package net.fips.dataplane.agent;
