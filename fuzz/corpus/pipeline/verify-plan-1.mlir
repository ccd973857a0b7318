gplan.device @gpu0 "/job:localhost/replica:0/task:0/device:GPU:0"
gplan.program @noMemoryPlan {
  gplan.return
}
