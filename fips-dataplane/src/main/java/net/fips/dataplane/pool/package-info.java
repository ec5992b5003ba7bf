/**
 * Packet memory for the data plane: one off-heap {@link net.fips.dataplane.pool.PacketPool} cut into fixed
 * slots, a reusable {@link net.fips.dataplane.pool.PacketView} flyweight over a slot, and rings that move slot
 * indices (plain ints) between agents.
 *
 * <h2>Ownership</h2>
 * A slot index has exactly one owner at a time. It is created by {@code PacketPool.acquire()}, moves between
 * agents only through {@link net.fips.dataplane.pool.SpscSlotRing} (one producer agent, one consumer agent) or
 * {@link net.fips.dataplane.pool.MpscSlotRing} (several producers, e.g. an inbox), and ends with
 * {@code PacketPool.release(int)}. The owner may read and write the slot with plain accesses; the rings'
 * release/acquire pairs carry those writes to the next owner. Every full ring, empty pool or refused release is
 * a return value the caller counts, never an exception and never a wait.
 *
 * <h2>Layout and headroom</h2>
 * {@link net.fips.dataplane.pool.SlotDescriptor} fixes the slot layout and derives the headroom from the wire
 * header sizes, so an outbound packet gains every encapsulation layer in place and an inbound one sheds them in
 * place: a packet is never copied between slots.
 *
 * <h2>Memory-ordering names</h2>
 * Accessor prefixes follow JCTools: {@code lp}/{@code sp} plain load/store, {@code lv} acquire (or volatile)
 * load, {@code so} release store, {@code cas} compare-and-set. Every non-plain access carries a one-line comment
 * saying what it orders. Positions written by different threads sit two cache lines apart, padded by offset:
 * in the pool's off-heap control block, and by index in the rings' heap {@code long[]} (the rings carry only
 * ints, and heap arrays measured three times faster than segment access for them; see {@code SpscSlotRing}).
 */
package net.fips.dataplane.pool;
