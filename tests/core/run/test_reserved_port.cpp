// The port a remote-run suite's sshd listens on (tests/support/ReservedPort.h): the
// suites run in parallel, and one suite's "connection refused" port or killed-and-
// restarted server must not be taken by another suite in between. Checked against the
// kernel itself: what bind() hands out, and flock()'s rule that a lock held through one
// open file excludes every other open file (another process's, or this one's).
#include <QtTest/QtTest>

#include <fcntl.h>
#include <netinet/in.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <unistd.h>

#include <set>
#include <string>
#include <vector>

#include "ExactCompare.h"
#include "../../support/ReservedPort.h"

using ampscope::test::ReservedPort;

namespace {

// A socket bound to port 0 of 127.0.0.1: the kernel picks the port (-1 when it cannot).
int kernelChosenPort(std::vector<int>& keep) {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) return -1;
    keep.push_back(fd);
    socklen_t length = sizeof address;
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
    return ntohs(address.sin_port);
}

bool lockedElsewhere(int port) {
    const std::string path = "/tmp/ampscope-test-port-" + std::to_string(port) + ".lock";
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    const bool locked = ::flock(fd, LOCK_EX | LOCK_NB) != 0;
    ::close(fd);
    return locked;
}

}  // namespace

class ReservedPortTest : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void aReservedPortIsNeverOneTheKernelHandsOut() {
        const ReservedPort reserved;
        QVERIFY2(reserved.port() > 0, "no port could be reserved");
        QVERIFY(reserved.port() >= ReservedPort::kLowest);
        QVERIFY(reserved.port() < ReservedPort::ephemeralLow());
        // Hundreds of sockets held at once, each given a port by the kernel: none is it.
        std::vector<int> sockets;
        std::set<int> handedOut;
        for (int i = 0; i < 500; ++i) handedOut.insert(kernelChosenPort(sockets));
        for (int fd : sockets) ::close(fd);
        QVERIFY(!handedOut.count(-1));
        QCOMPARE(handedOut.size(), std::size_t{500});
        QVERIFY(!handedOut.count(reserved.port()));
    }

    void reservationsExcludeEachOtherUntilReleased() {
        int released = 0;
        {
            const ReservedPort first;
            const ReservedPort second;
            QVERIFY(first.port() > 0 && second.port() > 0);
            QVERIFY(first.port() != second.port());
            // Held against any other open file of the lock, as another suite's would be.
            QVERIFY(lockedElsewhere(first.port()));
            QVERIFY(lockedElsewhere(second.port()));
            released = first.port();
        }
        QVERIFY2(!lockedElsewhere(released), "a reservation's end must free its port");
    }

    void manyReservationsAreAllDistinct() {
        std::vector<std::unique_ptr<ReservedPort>> held;
        std::set<int> ports;
        for (int i = 0; i < 64; ++i) {
            held.push_back(std::make_unique<ReservedPort>());
            QVERIFY(held.back()->port() > 0);
            ports.insert(held.back()->port());
        }
        QCOMPARE(ports.size(), std::size_t{64});
    }
};

QTEST_MAIN(ReservedPortTest)
#include "test_reserved_port.moc"
