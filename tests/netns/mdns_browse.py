"""Browses one mDNS service type with python3-zeroconf (an independent mDNS stack) and prints each resolved
instance as one line: NAME PORT ADDRESSES TXT (TXT as key=value pairs, sorted, comma-separated). Used by
lan-nodes.sh to check that what our nodes announce is what the reference announces (discovery-gateway.md §3.1).

Usage: python3 mdns_browse.py SERVICE_TYPE SECONDS
"""
import sys
import time

from zeroconf import ServiceBrowser, ServiceListener, Zeroconf


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
    zc = Zeroconf()
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
            print(f"{name} {info.port} {','.join(info.parsed_addresses())} {txt}", flush=True)
    finally:
        zc.close()


if __name__ == "__main__":
    main()
