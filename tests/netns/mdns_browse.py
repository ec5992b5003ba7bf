"""Browses one mDNS service type with python3-zeroconf (an independent mDNS stack) and prints each resolved
instance as one line: NAME PORT ADDRESSES TXT (TXT as key=value pairs, sorted, comma-separated). Used by
lan-nodes.sh to check that what our nodes announce is what the reference announces (discovery-gateway.md §3.1).
With FAMILY v6 it queries on ff02::fb only and prints only the AAAA addresses (so an address it prints came from an
AAAA record); v4 (the default) is IPv4 only, all both.

Usage: python3 mdns_browse.py SERVICE_TYPE SECONDS [v4|v6|all]
"""
import sys
import time

from zeroconf import IPVersion, ServiceBrowser, ServiceListener, Zeroconf


class Collect(ServiceListener):
    def __init__(self):
        self.names = set()

    def add_service(self, zc, type_, name):
        self.names.add(name)

    def update_service(self, zc, type_, name):
        self.names.add(name)

    def remove_service(self, zc, type_, name):
        pass


def main():
    service_type, seconds = sys.argv[1], float(sys.argv[2])
    family = {"v4": IPVersion.V4Only, "v6": IPVersion.V6Only, "all": IPVersion.All}[
        sys.argv[3] if len(sys.argv) > 3 else "v4"]
    zc = Zeroconf(ip_version=family)
    try:
        listener = Collect()
        ServiceBrowser(zc, service_type, listener)
        time.sleep(seconds)
        for name in sorted(listener.names):
            info = zc.get_service_info(service_type, name, timeout=3000)
            if info is None:
                print(f"{name} unresolved", flush=True)
                continue
            txt = ",".join(sorted(f"{k.decode()}={(v or b'').decode()}" for k, v in info.properties.items()))
            print(f"{name} {info.port} {','.join(info.parsed_addresses(family))} {txt}", flush=True)
    finally:
        zc.close()


if __name__ == "__main__":
    main()
