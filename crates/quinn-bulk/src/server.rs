//! The server: accept connections, serve each one's single transfer, print a report per connection.

use crate::args::ServerArgs;
use crate::client::write_zeros;
use crate::report::{line, Transfer};
use crate::wire::{decode_request, Direction, REQUEST_LEN};
use crate::{tls, transport};
use quinn::{Endpoint, ServerConfig};
use std::error::Error;
use std::sync::Arc;
use std::time::Instant;

/// Serves until killed, or until the first connection ends with `--once`.
pub(crate) async fn run(args: ServerArgs) -> Result<(), Box<dyn Error>> {
    let crypto = Arc::new(tls::server_crypto()?);
    let endpoint = Endpoint::server(ServerConfig::with_crypto(crypto.clone()), args.listen)
        .map_err(|e| format!("cannot listen on {}: {e}", args.listen))?;
    // Harnesses wait for this line before starting the client.
    eprintln!("quinn-bulk: listening on {}", endpoint.local_addr()?);
    let mut served = 0u64;
    while let Some(incoming) = endpoint.accept().await {
        served += 1;
        // A config per connection so that each one gets its own qlog file.
        let mut config = ServerConfig::with_crypto(crypto.clone());
        let qlog_name = format!("server-{}-{served}", std::process::id());
        config.transport_config(Arc::new(transport::transport_config(&args.common, &qlog_name)?));
        let connecting = incoming.accept_with(Arc::new(config))?;
        let common = args.common.clone();
        let task = tokio::spawn(async move {
            if let Err(e) = serve(connecting, &common).await {
                eprintln!("quinn-bulk: connection {served}: {e}");
            }
        });
        if args.once {
            task.await?;
            break;
        }
    }
    endpoint.wait_idle().await;
    Ok(())
}

async fn serve(connecting: quinn::Connecting, common: &crate::args::Common) -> Result<(), Box<dyn Error>> {
    let connection = connecting.await?;
    let peer = connection.remote_address();
    let (mut send, mut recv) = connection.accept_bi().await?;
    let started = Instant::now();
    let mut request = [0u8; REQUEST_LEN];
    recv.read_exact(&mut request).await?;
    let (direction, bytes) = decode_request(&request).ok_or("unknown request")?;
    let moved = match direction {
        Direction::Upload => {
            let mut received = 0u64;
            while let Some(chunk) = recv.read_chunk(usize::MAX, true).await? {
                received += chunk.bytes.len() as u64;
            }
            send.write_all(&received.to_be_bytes()).await?;
            send.finish()?;
            received
        }
        Direction::Download => {
            write_zeros(&mut send, bytes).await?;
            send.finish()?;
            send.stopped().await?;
            bytes
        }
    };
    let elapsed = started.elapsed();
    // The client closes once it has everything; stats taken after that include the last ACKs.
    connection.closed().await;
    let transfer = Transfer {
        role: "server",
        direction,
        cc: common.cc,
        bytes: moved,
        elapsed,
        handshake: None,
        peer,
    };
    println!("{}", line(&transfer, &connection.stats()));
    Ok(())
}
