//! The client: connect, send the request, move N bytes, print the report.

use crate::args::ClientArgs;
use crate::report::{line, Transfer};
use crate::wire::{encode_request, Direction};
use crate::{tls, transport};
use bytes::Bytes;
use quinn::{ClientConfig, Endpoint};
use std::error::Error;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Instant;

/// Zeros the sender hands to quinn as `Bytes::from_static`: no allocation or copy per chunk.
static ZEROS: [u8; 1 << 18] = [0; 1 << 18];

/// Runs one transfer, bounded by `--timeout`.
pub(crate) async fn run(args: ClientArgs) -> Result<(), Box<dyn Error>> {
    let timeout = args.timeout;
    match tokio::time::timeout(timeout, transfer(args)).await {
        Ok(result) => result,
        Err(_) => Err(format!("transfer did not finish within --timeout {timeout:?}").into()),
    }
}

async fn transfer(args: ClientArgs) -> Result<(), Box<dyn Error>> {
    let bind: SocketAddr = if args.connect.is_ipv4() { "0.0.0.0:0" } else { "[::]:0" }.parse()?;
    let endpoint = Endpoint::client(bind)?;
    let mut config = ClientConfig::new(Arc::new(tls::client_crypto()?));
    let qlog_name = format!("client-{}", std::process::id());
    config.transport_config(Arc::new(transport::transport_config(&args.common, &qlog_name)?));

    let start = Instant::now();
    let connection = endpoint
        .connect_with(config, args.connect, "localhost")?
        .await
        .map_err(|e| format!("cannot connect to {}: {e}", args.connect))?;
    let handshake = start.elapsed();

    let (mut send, mut recv) = connection.open_bi().await?;
    let started = Instant::now();
    send.write_all(&encode_request(args.direction, args.bytes)).await?;
    let moved = match args.direction {
        Direction::Upload => {
            write_zeros(&mut send, args.bytes).await?;
            send.finish()?;
            let ack = recv.read_to_end(8).await?;
            let received = u64::from_be_bytes(ack.as_slice().try_into().map_err(|_| "short count from server")?);
            if received != args.bytes {
                return Err(format!("server received {received} of {} bytes", args.bytes).into());
            }
            received
        }
        Direction::Download => {
            send.finish()?;
            let mut received = 0u64;
            while let Some(chunk) = recv.read_chunk(usize::MAX, true).await? {
                received += chunk.bytes.len() as u64;
            }
            if received != args.bytes {
                return Err(format!("received {received} of {} bytes", args.bytes).into());
            }
            received
        }
    };
    let elapsed = started.elapsed();
    let stats = connection.stats();
    connection.close(0u8.into(), b"done");
    // Let the close reach the server, then drop everything so the qlog buffer is flushed.
    endpoint.wait_idle().await;
    let transfer = Transfer {
        role: "client",
        direction: args.direction,
        cc: args.common.cc,
        bytes: moved,
        elapsed,
        handshake: Some(handshake),
        peer: args.connect,
    };
    println!("{}", line(&transfer, &stats));
    Ok(())
}

/// Writes `n` zero bytes as static chunks.
pub(crate) async fn write_zeros(send: &mut quinn::SendStream, mut n: u64) -> Result<(), Box<dyn Error>> {
    while n > 0 {
        let len = n.min(ZEROS.len() as u64) as usize;
        send.write_chunk(Bytes::from_static(&ZEROS[..len])).await?;
        n -= len as u64;
    }
    Ok(())
}
